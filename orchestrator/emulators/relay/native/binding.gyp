{
  "targets": [
    {
      "target_name": "relay_io",
      "sources": ["relay_io.c"],
      "cflags": ["-O2", "-Wall"]
    }
  ]
}
