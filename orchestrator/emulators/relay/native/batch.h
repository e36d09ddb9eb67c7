/*
 * The relay's socket batches (included by relay_io.c only): the per-instance state, the slot pool that holds the
 * payloads, and the epoll + recvmmsg read and the sendmmsg flush that relay_io.c's N-API functions drive.
 */
#ifndef RELAY_BATCH_H
#define RELAY_BATCH_H
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include <node_api.h>
#include <uv.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/udp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define MAX_BATCH 256   /* datagrams per call into JS */
#define SOCKET_BATCH 64 /* per recvmmsg/sendmmsg */
#define SLOT_BYTES 65536
#define CHUNK_SLOTS 256 /* the pool grows by this many slots (16 MiB of address space, pages touched on use) */
#define SLOT_FREE UINT32_MAX
#define SLOT_QUEUED 0x80000000u /* set in a slot's length once queued to send: no longer JS's to send or release */
#define META_COLUMNS 5
#define MAX_SENDS 256   /* datagrams JS queues per flush() */
#define SEND_COLUMNS 4  /* a queued send: [socketId, slot, port, address (host order)] */
#define MIN_WAKE_GAP_NS 200000 /* under load, at most one wake-up per 0.2 ms (relay_io.c's hold) */
#define GSO_MAX_BYTES 65507 /* the largest UDP/IPv4 payload */
#define GSO_MAX_SEGMENTS 64 /* UDP_MAX_SEGMENTS of kernels before 6.x */

typedef struct {
  int fd;
  int pending;
  int dirty;
  int noGso; /* the kernel or the route refused UDP_SEGMENT once: one datagram per message from then on */
  struct mmsghdr msgs[SOCKET_BATCH];
  struct iovec iovs[SOCKET_BATCH];
  struct sockaddr_in to[SOCKET_BATCH];
  /* GSO runs: consecutive datagrams to one destination sent as one message (see flushRuns) */
  struct mmsghdr runs[SOCKET_BATCH];
  int runFirst[SOCKET_BATCH];
  char control[SOCKET_BATCH][CMSG_SPACE(sizeof(uint16_t))] __attribute__((aligned(8)));
  uint32_t slots[SOCKET_BATCH]; /* the pool slot of each queued datagram, freed once sent */
} Sock;

/*
 * Payloads live in slots from the datagram's arrival until it is sent or dropped: recvmmsg writes into a free slot,
 * JS holds the slot's number while the link model keeps the packet, sendmmsg sends from it. A Buffer per datagram (and
 * its copy) was the relay's largest garbage: its young-generation scavenges and the mark-compacts that its external
 * memory started were the added delay's tail at half load.
 */
typedef struct {
  char **chunks;
  uint32_t chunkCount;
  uint32_t *lengths; /* by slot: the datagram's length, SLOT_FREE when free */
  uint32_t *freeSlots; /* a stack: the slot freed last is used first, its pages still warm */
  uint32_t freeCount;
} Pool;

typedef struct {
  napi_env env;
  int epfd, tfd, tickFd;
  uv_poll_t poll, tick, timer; /* the sockets (epfd), the hold's tick, the send timer */
  uv_prepare_t prepare;         /* stamps when the loop is about to wait for I/O (relay_io.c's timer wake-up) */
  uint64_t lastWakeNs;
  uint64_t timerDueNs;   /* when the send timer is armed to fire, on CLOCK_MONOTONIC */
  uint64_t idleSinceNs;  /* this loop turn: when it went to wait for I/O */
  uint64_t wokeNs;       /* this loop turn: when its first poll callback of ours ran, 0 before */
  uint64_t turnStartNs, turnCpuNs, turnWaitedNs; /* at the last wait: wall, thread CPU and libuv's total epoll wait */
  uint64_t offCpuMaxNs;  /* since takeOffCpuMaxMs: the longest busy turn's wall time its thread did not run */
  int closedHandles;
  int destroyed; /* by destroy(), the finalizer, or a shared array found detached: every call then throws */
  int collected; /* its JS handle was collected: the Io is freed with its last libuv handle (relay_io.c) */
  /*
   * The arrays shared with JS: meta and arrivals, written by the reads; sends (MAX_SENDS rows of SEND_COLUMNS), written
   * by JS and read by flush(). Held, but their data is looked up at each use, never kept: JS can detach or shrink
   * their buffers at any time, which frees or unmaps the memory.
   */
  napi_ref onEvents, meta, arrivals, sends;
  napi_async_context context;
  Sock **sockets;
  uint32_t socketCount, socketCapacity;
  uint32_t *dirty;
  uint32_t dirtyCount;
  Pool pool;
  struct mmsghdr recvMsgs[SOCKET_BATCH];
  struct iovec recvIovs[SOCKET_BATCH];
  struct sockaddr_in from[SOCKET_BATCH];
  uint32_t recvSlots[SOCKET_BATCH];
  /* SCM_TIMESTAMPNS: when the kernel took each datagram in, on CLOCK_REALTIME */
  char recvControl[SOCKET_BATCH][CMSG_SPACE(sizeof(struct timespec))] __attribute__((aligned(8)));
  uint32_t sendErrors;
} Io;

static char *slotData(const Pool *pool, uint32_t slot) {
  return pool->chunks[slot / CHUNK_SLOTS] + (size_t)(slot % CHUNK_SLOTS) * SLOT_BYTES;
}

/* Adds a chunk of free slots; returns 0 when out of memory. */
static int growPool(Pool *pool) {
  uint32_t slots = (pool->chunkCount + 1) * CHUNK_SLOTS;
  char **chunks = realloc(pool->chunks, (pool->chunkCount + 1) * sizeof(char *));
  if (chunks) pool->chunks = chunks;
  uint32_t *lengths = realloc(pool->lengths, slots * sizeof(uint32_t));
  if (lengths) pool->lengths = lengths;
  uint32_t *freeSlots = realloc(pool->freeSlots, slots * sizeof(uint32_t));
  if (freeSlots) pool->freeSlots = freeSlots;
  if (!chunks || !lengths || !freeSlots) return 0;
  void *chunk = mmap(NULL, (size_t)CHUNK_SLOTS * SLOT_BYTES, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (chunk == MAP_FAILED) return 0;
  uint32_t first = pool->chunkCount * CHUNK_SLOTS;
  pool->chunks[pool->chunkCount++] = chunk;
  for (uint32_t i = CHUNK_SLOTS; i-- > 0;) {
    pool->lengths[first + i] = SLOT_FREE;
    pool->freeSlots[pool->freeCount++] = first + i;
  }
  return 1;
}

/* A free slot, or SLOT_FREE when the pool cannot grow. */
static uint32_t takeSlot(Pool *pool) {
  if (pool->freeCount == 0 && !growPool(pool)) return SLOT_FREE;
  uint32_t slot = pool->freeSlots[--pool->freeCount];
  pool->lengths[slot] = 0;
  return slot;
}

static void releaseSlot(Pool *pool, uint32_t slot) {
  pool->lengths[slot] = SLOT_FREE;
  pool->freeSlots[pool->freeCount++] = slot;
}

/* Is slot a datagram JS holds (received, not yet queued to send, nor released)? */
static int slotHeld(const Pool *pool, uint32_t slot) {
  return slot < pool->chunkCount * CHUNK_SLOTS && pool->lengths[slot] != SLOT_FREE && !(pool->lengths[slot] & SLOT_QUEUED);
}

static void freePool(Pool *pool) {
  for (uint32_t i = 0; i < pool->chunkCount; i++) munmap(pool->chunks[i], (size_t)CHUNK_SLOTS * SLOT_BYTES);
  free(pool->chunks);
  free(pool->lengths);
  free(pool->freeSlots);
}

/* Sends the queued datagrams from `first` on, one message each. */
static void flushEach(Io *io, Sock *sock, int first) {
  int done = first;
  while (done < sock->pending) {
    int sent = sendmmsg(sock->fd, sock->msgs + done, sock->pending - done, 0);
    if (sent < 0) {
      if (errno == EINTR) continue;
      io->sendErrors++; /* skip the datagram that failed, send the rest */
      done++;
    } else {
      done += sent;
    }
  }
}

/* Does datagram j join the run that starts at i (same destination, at most the run's size, within GSO's limits)? */
static int joinsRun(const Sock *sock, int i, int j, size_t runBytes) {
  size_t size = sock->iovs[i].iov_len, length = sock->iovs[j].iov_len;
  return j - i < GSO_MAX_SEGMENTS && size > 0 && length > 0 && length <= size && sock->iovs[j - 1].iov_len == size
    && runBytes + length <= GSO_MAX_BYTES && sock->to[j].sin_port == sock->to[i].sin_port
    && sock->to[j].sin_addr.s_addr == sock->to[i].sin_addr.s_addr;
}

/* Groups the queued datagrams into runs; returns how many. */
static int buildRuns(Sock *sock) {
  int runs = 0;
  for (int i = 0; i < sock->pending; runs++) {
    size_t runBytes = sock->iovs[i].iov_len;
    int j = i + 1;
    for (; j < sock->pending && joinsRun(sock, i, j, runBytes); j++) runBytes += sock->iovs[j].iov_len;
    struct mmsghdr *run = &sock->runs[runs];
    memset(run, 0, sizeof *run);
    run->msg_hdr.msg_name = &sock->to[i];
    run->msg_hdr.msg_namelen = sizeof(struct sockaddr_in);
    run->msg_hdr.msg_iov = &sock->iovs[i];
    run->msg_hdr.msg_iovlen = j - i;
    if (j - i > 1) {
      run->msg_hdr.msg_control = sock->control[runs];
      run->msg_hdr.msg_controllen = sizeof sock->control[runs];
      struct cmsghdr *header = CMSG_FIRSTHDR(&run->msg_hdr);
      header->cmsg_level = SOL_UDP;
      header->cmsg_type = UDP_SEGMENT;
      header->cmsg_len = CMSG_LEN(sizeof(uint16_t));
      uint16_t segmentBytes = (uint16_t)sock->iovs[i].iov_len;
      memcpy(CMSG_DATA(header), &segmentBytes, sizeof segmentBytes);
    }
    sock->runFirst[runs] = i;
    i = j;
  }
  return runs;
}

/*
 * Sends the queued datagrams, each run of equal-sized ones to one destination as one message that the kernel cuts
 * into those datagrams (UDP GSO): one trip through the IP stack per run instead of per datagram, the largest cost of
 * a relay that forwards 1200-byte packets. A run the kernel refuses (no UDP_SEGMENT, a route without checksum offload
 * or with a smaller MTU) turns GSO off for the socket and is sent one datagram at a time.
 */
static void flushSocket(Io *io, Sock *sock) {
  int runs = sock->noGso ? 0 : buildRuns(sock);
  int done = 0;
  while (done < runs) {
    int sent = sendmmsg(sock->fd, sock->runs + done, runs - done, 0);
    if (sent >= 0) {
      done += sent;
      continue;
    }
    if (errno == EINTR) continue;
    int first = sock->runFirst[done];
    int count = (done + 1 < runs ? sock->runFirst[done + 1] : sock->pending) - first;
    if (count > 1 && (errno == EINVAL || errno == EIO || errno == ENOPROTOOPT || errno == EOPNOTSUPP)) {
      sock->noGso = 1;
      break;
    }
    io->sendErrors += count; /* skip the run that failed, send the rest */
    done++;
  }
  if (sock->noGso) flushEach(io, sock, done < runs ? sock->runFirst[done] : 0);
  for (int i = 0; i < sock->pending; i++) releaseSlot(&io->pool, sock->slots[i]);
  sock->pending = 0;
}

/* Sends every queued datagram; only here do sockets leave the dirty list, so each is on it at most once. */
static void flushAll(Io *io) {
  for (uint32_t i = 0; i < io->dirtyCount; i++) {
    Sock *sock = io->sockets[io->dirty[i]];
    if (!sock) continue;
    flushSocket(io, sock);
    sock->dirty = 0;
  }
  io->dirtyCount = 0;
}

static int64_t timespecNs(struct timespec at) { return (int64_t)at.tv_sec * 1000000000LL + at.tv_nsec; }

/*
 * When the kernel took the datagram in (its SCM_TIMESTAMPNS) on CLOCK_MONOTONIC, in ms: a link's delay counts from
 * there, so the relay's own wake-up (idle CPU, a busy event loop, relay_io.c's hold) does not add to it. Without a
 * stamp, now.
 */
static double arrivalMs(struct msghdr *msg, int64_t realNowNs, int64_t monoNowNs) {
  for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) continue;
    struct timespec stamp;
    memcpy(&stamp, CMSG_DATA(c), sizeof stamp);
    int64_t ageNs = realNowNs - timespecNs(stamp);
    /* Negative: it came after the clocks were read. A wall clock stepped meanwhile makes the age nonsense: now. */
    if (ageNs > -1000000000LL && ageNs < 10000000000LL) return (double)(monoNowNs - ageNs) / 1e6;
  }
  return (double)monoNowNs / 1e6;
}

/*
 * Reads what is ready: up to MAX_BATCH datagrams into pool slots, their rows of meta (MAX_BATCH * META_COLUMNS) and
 * arrivalsMs (MAX_BATCH: the arrival on CLOCK_MONOTONIC, in ms) filled.
 */
static uint32_t receive(Io *io, uint32_t *meta, double *arrivalsMs) {
  struct epoll_event events[64];
  int ready = epoll_wait(io->epfd, events, 64, 0);
  uint32_t count = 0;
  struct timespec realNow, monoNow;
  clock_gettime(CLOCK_REALTIME, &realNow);
  clock_gettime(CLOCK_MONOTONIC, &monoNow);
  for (int e = 0; e < ready; e++) {
    uint32_t id = events[e].data.u32;
    Sock *sock = id < io->socketCount ? io->sockets[id] : NULL;
    if (!sock || count >= MAX_BATCH) continue; /* level-triggered: the rest comes on the next wake-up */
    unsigned want = MAX_BATCH - count < SOCKET_BATCH ? MAX_BATCH - count : SOCKET_BATCH;
    unsigned taken = 0;
    for (; taken < want && (io->recvSlots[taken] = takeSlot(&io->pool)) != SLOT_FREE; taken++) {}
    want = taken; /* out of memory: the rest waits in the socket */
    for (unsigned i = 0; i < want; i++) {
      io->recvIovs[i].iov_base = slotData(&io->pool, io->recvSlots[i]);
      io->recvIovs[i].iov_len = SLOT_BYTES;
      memset(&io->recvMsgs[i].msg_hdr, 0, sizeof(struct msghdr));
      io->recvMsgs[i].msg_hdr.msg_iov = &io->recvIovs[i];
      io->recvMsgs[i].msg_hdr.msg_iovlen = 1;
      io->recvMsgs[i].msg_hdr.msg_name = &io->from[i];
      io->recvMsgs[i].msg_hdr.msg_namelen = sizeof(struct sockaddr_in);
      io->recvMsgs[i].msg_hdr.msg_control = io->recvControl[i];
      io->recvMsgs[i].msg_hdr.msg_controllen = sizeof io->recvControl[i];
    }
    int got = want == 0 ? 0 : recvmmsg(sock->fd, io->recvMsgs, want, MSG_DONTWAIT, NULL);
    if (got < 0) got = 0;
    for (int i = 0; i < got; i++) {
      uint32_t *row = meta + (size_t)(count + i) * META_COLUMNS;
      row[0] = id;
      row[1] = ntohl(io->from[i].sin_addr.s_addr);
      row[2] = ntohs(io->from[i].sin_port);
      row[3] = io->recvMsgs[i].msg_len;
      row[4] = io->recvSlots[i];
      arrivalsMs[count + i] = arrivalMs(&io->recvMsgs[i].msg_hdr, timespecNs(realNow), timespecNs(monoNow));
      io->pool.lengths[io->recvSlots[i]] = io->recvMsgs[i].msg_len;
    }
    for (unsigned i = want; i-- > (unsigned)got;) releaseSlot(&io->pool, io->recvSlots[i]);
    count += got;
  }
  return count;
}

#endif
