/*
 * The relay's packet I/O in batches (Linux): recvmmsg/sendmmsg on its UDP sockets, all behind one epoll fd that libuv
 * polls, so one wake-up hands every ready datagram to JS in one call, and a timerfd for sub-millisecond timers.
 * Node's dgram costs one recvmsg/sendmsg syscall and one JS callback per datagram, and its timers whole milliseconds.
 * The link model stays in JS (../relay.js); ../packet-io.js wraps this, with Node's dgram as the fallback.
 *
 * JS API (io: the external that create returns):
 *   create(onEvents, meta: Uint32Array(MAX_BATCH * META_COLUMNS), arrivals: Float64Array(MAX_BATCH),
 *          sends: Uint32Array(MAX_SENDS * SEND_COLUMNS)) -> io
 *     onEvents(count, timerFired: boolean, timerWakeMs: number): timerWakeMs, when the timer fired and the loop had
 *     been waiting for I/O since before its time, is how long after that time the host woke the relay (its scheduling,
 *     not the relay's work), else -1 (the loop was busy at the timer's time, or it did not fire). meta holds count rows of
 *     [socketId, sourceAddress (host order), sourcePort, length, slot]; each payload stays in its pool slot until JS
 *     sends it or releases it (see Pool in batch.h). arrivals[row]: when the kernel took that datagram in, in ms on
 *     CLOCK_MONOTONIC (process.hrtime's clock).
 *   bind(io, address, bufferBytes) -> [socketId, port]
 *   release(io, slot)  a datagram that will not be sent
 *   flush(io, count) -> datagrams that could not be sent: sends the first count rows of sends, each
 *     [socketId, slot, port, address (host order)], from their slots, and frees the slots. JS writes the rows and
 *     calls once per turn of its event loop: one N-API call per datagram cost more than its sendmmsg share. A row
 *     naming no open socket, or a slot JS does not hold (never received, released, or in an earlier row), is refused
 *     and counted.
 *   setTimer(io, delayMs)  fires once after delayMs (<= 0: at once; a new call replaces the one armed)
 *   takeOffCpuMaxMs(io) -> ms: since the last call, the longest time within one turn of the event loop (from one wait
 *     for I/O to the next, less the wait) that its thread did not run: wall time minus the thread's CPU time. The
 *     relay blocks on nothing in a turn (non-blocking sockets), so that is the host's scheduling, not its work.
 *   closeSocket(io, socketId); destroy(io)
 *
 * Nothing JS does can crash it: a call on a destroyed io throws (the Io outlives its handles until its JS handle is
 * collected); the shared arrays are looked up and checked (detached, type, size) at each use, so one detached or
 * shrunk makes flush throw, or closes the io with an uncaught error at its next read; an io collected without
 * destroy() is closed by its finalizer.
 */
#include "batch.h"

/* Marks the externals create returns: no other external passes for an io. */
static const napi_type_tag IO_TAG = {0x7e1a9b0c4d2f4e31ULL, 0x9a55c3d1b2e07f48ULL};

#define CHECK(env, call)                                              \
  do {                                                                \
    if ((call) != napi_ok) {                                          \
      napi_throw_error((env), NULL, "relay_io: N-API call failed: " #call); \
      return NULL;                                                    \
    }                                                                 \
  } while (0)

static napi_value throwErrno(napi_env env, const char *what) {
  char message[256];
  snprintf(message, sizeof message, "%s: %s", what, strerror(errno));
  napi_throw_error(env, NULL, message);
  return NULL;
}

static Io *ioOf(napi_env env, napi_value value) {
  Io *io = NULL;
  bool tagged = false;
  if (napi_check_object_type_tag(env, value, &IO_TAG, &tagged) != napi_ok || !tagged
      || napi_get_value_external(env, value, (void **)&io) != napi_ok || !io) {
    napi_throw_error(env, NULL, "relay_io: not an open io handle");
    return NULL;
  }
  if (io->destroyed) {
    napi_throw_error(env, NULL, "relay_io: the io was destroyed");
    return NULL;
  }
  return io;
}

/* The data of a typed array of the given type, at least minLength elements and not detached, else NULL. */
static void *typedArray(napi_env env, napi_value value, napi_typedarray_type type, size_t minLength) {
  napi_typedarray_type actual;
  size_t length;
  void *data;
  napi_value buffer;
  bool detached = true;
  if (napi_get_typedarray_info(env, value, &actual, &length, &data, &buffer, NULL) != napi_ok
      || napi_is_detached_arraybuffer(env, buffer, &detached) != napi_ok) return NULL;
  return !detached && actual == type && length >= minLength ? data : NULL;
}

/* A shared array's data as it is now (see Io in batch.h), else NULL; call inside a handle scope. */
static void *sharedArray(napi_env env, napi_ref array, napi_typedarray_type type, size_t minLength) {
  napi_value value;
  return napi_get_reference_value(env, array, &value) == napi_ok && value ? typedArray(env, value, type, minLength) : NULL;
}

static void closeIo(Io *io);

/* The arguments of a call on an io (its first): NULL, with the exception thrown, when fewer came or io is not one. */
static Io *ioCall(napi_env env, napi_callback_info info, size_t count, napi_value *argv, const char *usage) {
  size_t argc = count;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < count) {
    napi_throw_type_error(env, NULL, usage);
    return NULL;
  }
  return ioOf(env, argv[0]);
}

static Sock *sockOf(napi_env env, Io *io, napi_value value, uint32_t *id) {
  if (napi_get_value_uint32(env, value, id) != napi_ok || *id >= io->socketCount || !io->sockets[*id]) {
    napi_throw_error(env, NULL, "relay_io: unknown socket id");
    return NULL;
  }
  return io->sockets[*id];
}

/* Reads what is ready and hands it to JS with whether the send timer fired; returns whether there was anything. */
static int deliverReady(Io *io, int timerFired, double timerWakeMs) {
  napi_env env = io->env;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return 1;
  uint32_t *meta = sharedArray(env, io->meta, napi_uint32_array, MAX_BATCH * META_COLUMNS);
  double *arrivalsMs = sharedArray(env, io->arrivals, napi_float64_array, MAX_BATCH);
  if (!meta || !arrivalsMs) {
    /* Nowhere to read into, and no JS call to throw from: the io closes, and the error goes to JS's uncaught ones. */
    closeIo(io);
    napi_value message, error;
    napi_create_string_utf8(env, meta ? "relay_io: arrivals is detached or smaller than MAX_BATCH; the io is closed"
                                      : "relay_io: meta is detached or smaller than MAX_BATCH * META_COLUMNS; the io is closed",
                            NAPI_AUTO_LENGTH, &message);
    napi_create_error(env, NULL, message, &error);
    napi_fatal_exception(env, error);
    napi_close_handle_scope(env, scope);
    return 1;
  }
  uint32_t count = receive(io, meta, arrivalsMs);
  if (count == 0 && !timerFired) {
    napi_close_handle_scope(env, scope);
    return 0;
  }
  napi_value argv[3], callback, recv, result;
  napi_create_uint32(env, count, &argv[0]);
  napi_get_boolean(env, timerFired, &argv[1]);
  napi_create_double(env, timerWakeMs, &argv[2]);
  napi_get_reference_value(env, io->onEvents, &callback);
  napi_get_global(env, &recv);
  /* make_callback runs the microtasks after it (the JS side flushes its sends there). */
  if (napi_make_callback(env, io->context, recv, callback, 3, argv, &result) == napi_pending_exception) {
    napi_value error;
    napi_get_and_clear_last_exception(env, &error);
    napi_fatal_exception(env, error);
  }
  napi_close_handle_scope(env, scope);
  return 1;
}

static uint64_t clockNs(clockid_t clock) {
  struct timespec now;
  clock_gettime(clock, &now);
  return (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec;
}

static uint64_t monotonicNs(void) { return clockNs(CLOCK_MONOTONIC); }

/*
 * Under load the relay wakes at most once per MIN_WAKE_GAP_NS: a wake-up that follows the one before within it stops
 * the polling and arms the tick, which reads everything that came meanwhile in one batch, and keeps ticking while
 * there is something to read. Each wake-up (epoll, libuv, a call into JS, a flush) cost more than the datagrams it
 * carried: at 60 000 p/s the relay woke 17 000 times a second for 3 datagrams each.
 */
static void hold(Io *io) {
  struct itimerspec spec = {.it_value = {.tv_nsec = MIN_WAKE_GAP_NS}};
  if (timerfd_settime(io->tickFd, 0, &spec, NULL) < 0) return; /* then it stays on polling */
  uv_poll_stop(&io->poll);
}

/*
 * The loop is about to wait for I/O: a timer due after this found the relay idle. The turn since the last wait (its
 * wall time less what libuv spent waiting in epoll) took more than its thread's CPU time when the host held it off the
 * CPU: the relay blocks on nothing in a turn. Every turn counts, also those of Node's own handles (IPC, JS timers).
 */
static void onPrepare(uv_prepare_t *handle) {
  Io *io = handle->data;
  uint64_t nowNs = monotonicNs(), cpuNs = clockNs(CLOCK_THREAD_CPUTIME_ID), waitedNs = uv_metrics_idle_time(handle->loop);
  if (io->turnStartNs) {
    uint64_t busyNs = nowNs - io->turnStartNs - (waitedNs - io->turnWaitedNs), ranNs = cpuNs - io->turnCpuNs;
    if (busyNs > ranNs && busyNs - ranNs > io->offCpuMaxNs) io->offCpuMaxNs = busyNs - ranNs;
  }
  io->turnStartNs = nowNs;
  io->turnCpuNs = cpuNs;
  io->turnWaitedNs = waitedNs;
  io->idleSinceNs = nowNs;
  io->wokeNs = 0;
}

/* Now, and the first wake-up of this loop turn if none of ours came before. */
static uint64_t woke(Io *io) {
  uint64_t nowNs = monotonicNs();
  if (!io->wokeNs) io->wokeNs = nowNs;
  return nowNs;
}

static void onReadable(uv_poll_t *handle, int status, int events) {
  Io *io = handle->data;
  uint64_t nowNs = woke(io);
  int soon = nowNs - io->lastWakeNs < MIN_WAKE_GAP_NS;
  io->lastWakeNs = nowNs;
  if (deliverReady(io, 0, -1) && soon && !io->destroyed) hold(io);
}

static void onTick(uv_poll_t *handle, int status, int events) {
  Io *io = handle->data;
  uint64_t expirations;
  if (read(io->tickFd, &expirations, sizeof expirations) != sizeof expirations) return;
  io->lastWakeNs = woke(io);
  if (deliverReady(io, 0, -1)) {
    if (!io->destroyed) hold(io);
  } else {
    uv_poll_start(&io->poll, UV_READABLE, onReadable);
  }
}

/*
 * The send timer has a poll of its own, so that a hold, which stops the sockets' poll, does not hold sends back too:
 * inside the sockets' epoll set it waited for the hold's next tick, up to 0.2 ms after its time.
 */
static void onTimer(uv_poll_t *handle, int status, int events) {
  Io *io = handle->data;
  woke(io);
  uint64_t expirations;
  if (read(io->tfd, &expirations, sizeof expirations) != sizeof expirations) return;
  /* Idle since before the timer's time: what passed until the loop woke is the host's, not the relay's. */
  int idle = io->idleSinceNs <= io->timerDueNs && io->wokeNs >= io->timerDueNs;
  deliverReady(io, 1, idle ? (double)(io->wokeNs - io->timerDueNs) / 1e6 : -1);
}

/* What the io holds (sockets, pool); the Io itself stays while its JS handle may still name it. */
static void freeHeld(Io *io) {
  for (uint32_t i = 0; i < io->socketCount; i++) {
    if (io->sockets[i]) close(io->sockets[i]->fd);
    free(io->sockets[i]);
  }
  free(io->sockets);
  free(io->dirty);
  freePool(&io->pool);
}

/* What the io holds is freed once its three poll handles and its prepare handle are closed; the Io once also collected. */
static void onPollClosed(uv_handle_t *handle) {
  Io *io = handle->data;
  if (++io->closedHandles < 4) return;
  freeHeld(io);
  if (io->collected) free(io);
}

/* The finalizer of the io's JS handle: an io dropped without destroy() closes here (its polls held the loop open). */
static void onCollected(napi_env env, void *data, void *hint) {
  Io *io = data;
  io->collected = 1;
  if (!io->destroyed) closeIo(io);
  else if (io->closedHandles == 4) free(io);
}

static napi_value create(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4], resource, name, external;
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 4 || !typedArray(env, argv[1], napi_uint32_array, MAX_BATCH * META_COLUMNS)
      || !typedArray(env, argv[2], napi_float64_array, MAX_BATCH)
      || !typedArray(env, argv[3], napi_uint32_array, MAX_SENDS * SEND_COLUMNS)) {
    napi_throw_type_error(env, NULL, "relay_io.create(onEvents, meta, arrivals, sends): meta must be a Uint32Array of "
      "MAX_BATCH * META_COLUMNS, arrivals a Float64Array of MAX_BATCH, sends a Uint32Array of MAX_SENDS * SEND_COLUMNS");
    return NULL;
  }
  Io *io = calloc(1, sizeof(Io));
  io->env = env;
  io->epfd = epoll_create1(EPOLL_CLOEXEC);
  io->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  io->tickFd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (!growPool(&io->pool) || io->epfd < 0 || io->tfd < 0 || io->tickFd < 0) {
    if (io->epfd >= 0) close(io->epfd);
    if (io->tfd >= 0) close(io->tfd);
    if (io->tickFd >= 0) close(io->tickFd);
    io->epfd = io->tfd = io->tickFd = -1;
    freeHeld(io);
    free(io);
    return throwErrno(env, "relay_io: epoll or timerfd");
  }
  CHECK(env, napi_create_reference(env, argv[0], 1, &io->onEvents));
  CHECK(env, napi_create_reference(env, argv[1], 1, &io->meta));
  CHECK(env, napi_create_reference(env, argv[2], 1, &io->arrivals));
  CHECK(env, napi_create_reference(env, argv[3], 1, &io->sends));
  CHECK(env, napi_create_object(env, &resource));
  CHECK(env, napi_create_string_utf8(env, "RelayIo", NAPI_AUTO_LENGTH, &name));
  CHECK(env, napi_async_init(env, resource, name, &io->context));
  uv_loop_t *loop;
  CHECK(env, napi_get_uv_event_loop(env, &loop));
  uv_poll_init(loop, &io->poll, io->epfd);
  io->poll.data = io;
  uv_poll_start(&io->poll, UV_READABLE, onReadable);
  uv_poll_init(loop, &io->tick, io->tickFd);
  io->tick.data = io;
  uv_poll_start(&io->tick, UV_READABLE, onTick);
  uv_poll_init(loop, &io->timer, io->tfd);
  io->timer.data = io;
  uv_poll_start(&io->timer, UV_READABLE, onTimer);
  uv_prepare_init(loop, &io->prepare);
  io->prepare.data = io;
  uv_prepare_start(&io->prepare, onPrepare);
  uv_unref((uv_handle_t *)&io->prepare); /* the polls keep the loop alive, not this */
  CHECK(env, napi_create_external(env, io, onCollected, NULL, &external));
  CHECK(env, napi_type_tag_object(env, external, &IO_TAG));
  return external;
}

static napi_value bindSocket(napi_env env, napi_callback_info info) {
  napi_value argv[3], result, idValue, portValue;
  Io *io = ioCall(env, info, 3, argv, "relay_io.bind(io, address, bufferBytes)");
  if (!io) return NULL;
  char address[64];
  size_t addressLength;
  uint32_t bufferBytes;
  struct sockaddr_in local = {.sin_family = AF_INET, .sin_port = 0};
  if (napi_get_value_string_utf8(env, argv[1], address, sizeof address, &addressLength) != napi_ok
      || inet_pton(AF_INET, address, &local.sin_addr) != 1 || napi_get_value_uint32(env, argv[2], &bufferBytes) != napi_ok) {
    napi_throw_type_error(env, NULL, "relay_io.bind(io, address, bufferBytes): address must be an IPv4 literal");
    return NULL;
  }
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return throwErrno(env, "socket");
  int size = (int)bufferBytes;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
  int on = 1; /* without stamps (an old kernel) arrivals are the read's time */
  setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
  socklen_t localLength = sizeof local;
  if (bind(fd, (struct sockaddr *)&local, sizeof local) < 0 || getsockname(fd, (struct sockaddr *)&local, &localLength) < 0) {
    close(fd);
    return throwErrno(env, "bind");
  }
  if (io->socketCount == io->socketCapacity) {
    uint32_t capacity = io->socketCapacity ? io->socketCapacity * 2 : 16;
    Sock **sockets = realloc(io->sockets, capacity * sizeof(Sock *));
    uint32_t *dirty = realloc(io->dirty, capacity * sizeof(uint32_t));
    if (!sockets || !dirty) {
      close(fd);
      if (sockets) io->sockets = sockets;
      if (dirty) io->dirty = dirty;
      return throwErrno(env, "relay_io: out of memory");
    }
    io->sockets = sockets;
    io->dirty = dirty;
    io->socketCapacity = capacity;
  }
  Sock *sock = calloc(1, sizeof(Sock));
  sock->fd = fd;
  uint32_t id = io->socketCount++;
  io->sockets[id] = sock;
  struct epoll_event event = {.events = EPOLLIN, .data.u32 = id};
  if (epoll_ctl(io->epfd, EPOLL_CTL_ADD, fd, &event) < 0) return throwErrno(env, "epoll_ctl");
  CHECK(env, napi_create_array_with_length(env, 2, &result));
  CHECK(env, napi_create_uint32(env, id, &idValue));
  CHECK(env, napi_create_uint32(env, ntohs(local.sin_port), &portValue));
  CHECK(env, napi_set_element(env, result, 0, idValue));
  CHECK(env, napi_set_element(env, result, 1, portValue));
  return result;
}

/* Queues one row of sends on its socket's batch; a row naming no open socket or held slot counts as a send error. */
static void queueRow(Io *io, const uint32_t *row) {
  uint32_t id = row[0], slot = row[1], port = row[2], address = row[3];
  if (!slotHeld(&io->pool, slot)) {
    io->sendErrors++;
    return;
  }
  if (id >= io->socketCount || !io->sockets[id] || port > 65535) {
    releaseSlot(&io->pool, slot);
    io->sendErrors++;
    return;
  }
  Sock *sock = io->sockets[id];
  if (sock->pending == SOCKET_BATCH) flushSocket(io, sock);
  int i = sock->pending++;
  sock->slots[i] = slot;
  sock->iovs[i] = (struct iovec){.iov_base = slotData(&io->pool, slot), .iov_len = io->pool.lengths[slot]};
  io->pool.lengths[slot] |= SLOT_QUEUED; /* a second row naming it is refused: it would be sent and freed twice */
  sock->to[i] = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(address)};
  memset(&sock->msgs[i], 0, sizeof(struct mmsghdr));
  sock->msgs[i].msg_hdr.msg_iov = &sock->iovs[i];
  sock->msgs[i].msg_hdr.msg_iovlen = 1;
  sock->msgs[i].msg_hdr.msg_name = &sock->to[i];
  sock->msgs[i].msg_hdr.msg_namelen = sizeof(struct sockaddr_in);
  if (!sock->dirty) {
    sock->dirty = 1;
    io->dirty[io->dirtyCount++] = id;
  }
}

static napi_value releaseDatagram(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  Io *io = ioCall(env, info, 2, argv, "relay_io.release(io, slot)");
  if (!io) return NULL;
  uint32_t slot;
  if (napi_get_value_uint32(env, argv[1], &slot) != napi_ok || !slotHeld(&io->pool, slot)) {
    napi_throw_type_error(env, NULL,
                          "relay_io.release(io, slot): slot must be a received datagram's, not yet sent or released");
    return NULL;
  }
  releaseSlot(&io->pool, slot);
  return NULL;
}

static napi_value flushSends(napi_env env, napi_callback_info info) {
  napi_value argv[2], result;
  Io *io = ioCall(env, info, 2, argv, "relay_io.flush(io, count)");
  if (!io) return NULL;
  uint32_t count;
  if (napi_get_value_uint32(env, argv[1], &count) != napi_ok || count > MAX_SENDS) {
    napi_throw_type_error(env, NULL, "relay_io.flush(io, count): count must be the rows of sends written, 0..MAX_SENDS");
    return NULL;
  }
  const uint32_t *sends = sharedArray(env, io->sends, napi_uint32_array, MAX_SENDS * SEND_COLUMNS);
  if (!sends) {
    napi_throw_type_error(env, NULL, "relay_io: sends is detached or smaller than MAX_SENDS * SEND_COLUMNS");
    return NULL;
  }
  for (uint32_t row = 0; row < count; row++) queueRow(io, &sends[row * SEND_COLUMNS]);
  flushAll(io);
  CHECK(env, napi_create_uint32(env, io->sendErrors, &result));
  io->sendErrors = 0;
  return result;
}

static napi_value setTimer(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  Io *io = ioCall(env, info, 2, argv, "relay_io.setTimer(io, delayMs)");
  if (!io) return NULL;
  double delayMs;
  if (napi_get_value_double(env, argv[1], &delayMs) != napi_ok || delayMs != delayMs) {
    napi_throw_type_error(env, NULL, "relay_io.setTimer(io, delayMs): delayMs must be a number");
    return NULL;
  }
  /* A zero it_value disarms: at once means 1 ns. */
  long long delayNs = delayMs <= 0 ? 1 : delayMs > 1e12 ? 1000000000000000LL : (long long)(delayMs * 1e6);
  if (delayNs < 1) delayNs = 1;
  struct itimerspec spec = {.it_value = {.tv_sec = delayNs / 1000000000LL, .tv_nsec = delayNs % 1000000000LL}};
  io->timerDueNs = monotonicNs() + (uint64_t)delayNs;
  if (timerfd_settime(io->tfd, 0, &spec, NULL) < 0) return throwErrno(env, "timerfd_settime");
  return NULL;
}

static napi_value takeOffCpuMaxMs(napi_env env, napi_callback_info info) {
  napi_value argv[1], result;
  Io *io = ioCall(env, info, 1, argv, "relay_io.takeOffCpuMaxMs(io)");
  if (!io) return NULL;
  CHECK(env, napi_create_double(env, (double)io->offCpuMaxNs / 1e6, &result));
  io->offCpuMaxNs = 0;
  return result;
}

static napi_value closeSocket(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  Io *io = ioCall(env, info, 2, argv, "relay_io.closeSocket(io, socketId)");
  if (!io) return NULL;
  uint32_t id;
  Sock *sock = sockOf(env, io, argv[1], &id);
  if (!sock) return NULL;
  flushAll(io);
  epoll_ctl(io->epfd, EPOLL_CTL_DEL, sock->fd, NULL);
  close(sock->fd);
  free(sock);
  io->sockets[id] = NULL;
  return NULL;
}

/* Sends what is queued and closes the io's handles (onPollClosed frees what it holds); every call then throws. */
static void closeIo(Io *io) {
  napi_env env = io->env;
  io->destroyed = 1;
  flushAll(io);
  napi_delete_reference(env, io->onEvents);
  napi_delete_reference(env, io->meta);
  napi_delete_reference(env, io->arrivals);
  napi_delete_reference(env, io->sends);
  napi_async_destroy(env, io->context);
  uv_poll_stop(&io->poll);
  uv_poll_stop(&io->tick);
  uv_poll_stop(&io->timer);
  uv_prepare_stop(&io->prepare);
  close(io->epfd);
  close(io->tfd);
  close(io->tickFd);
  io->epfd = io->tfd = io->tickFd = -1;
  uv_close((uv_handle_t *)&io->poll, onPollClosed);
  uv_close((uv_handle_t *)&io->tick, onPollClosed);
  uv_close((uv_handle_t *)&io->timer, onPollClosed);
  uv_close((uv_handle_t *)&io->prepare, onPollClosed);
}

static napi_value destroy(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  Io *io = ioCall(env, info, 1, argv, "relay_io.destroy(io)");
  if (io) closeIo(io);
  return NULL;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
    {"create", NULL, create, NULL, NULL, NULL, napi_default, NULL},
    {"bind", NULL, bindSocket, NULL, NULL, NULL, napi_default, NULL},
    {"release", NULL, releaseDatagram, NULL, NULL, NULL, napi_default, NULL},
    {"flush", NULL, flushSends, NULL, NULL, NULL, napi_default, NULL},
    {"setTimer", NULL, setTimer, NULL, NULL, NULL, napi_default, NULL},
    {"takeOffCpuMaxMs", NULL, takeOffCpuMaxMs, NULL, NULL, NULL, napi_default, NULL},
    {"closeSocket", NULL, closeSocket, NULL, NULL, NULL, napi_default, NULL},
    {"destroy", NULL, destroy, NULL, NULL, NULL, napi_default, NULL},
  };
  const char *names[] = {"MAX_BATCH", "META_COLUMNS", "MAX_SENDS", "SEND_COLUMNS"};
  const uint32_t values[] = {MAX_BATCH, META_COLUMNS, MAX_SENDS, SEND_COLUMNS};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    napi_value value;
    napi_create_uint32(env, values[i], &value);
    napi_set_named_property(env, exports, names[i], value);
  }
  napi_value arrivalStamps;
  napi_get_boolean(env, 1, &arrivalStamps);
  napi_set_named_property(env, exports, "ARRIVAL_STAMPS", arrivalStamps);
  napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
