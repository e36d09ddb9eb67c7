{
  "targets": [
    {
      "target_name": "relay_io",
      "sources": ["relay_io.c", "batch.h"],
      "cflags": ["-O2", "-Wall"]
    }
  ]
}
