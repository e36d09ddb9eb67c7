/*
 * The relay's socket batches (included by relay_io.c only): the per-instance state, and the epoll + recvmmsg read and
 * the sendmmsg flush that relay_io.c's N-API functions drive.
 */
#ifndef RELAY_BATCH_H
#define RELAY_BATCH_H
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include <node_api.h>
#include <uv.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#define MAX_BATCH 256   /* datagrams per call into JS */
#define SOCKET_BATCH 64 /* per recvmmsg/sendmmsg */
#define SLOT_BYTES 65536
#define ARENA_BYTES (4 * 1024 * 1024)
#define TIMER_TAG UINT32_MAX

typedef struct {
  int fd;
  int pending;
  int dirty;
  struct mmsghdr msgs[SOCKET_BATCH];
  struct iovec iovs[SOCKET_BATCH];
  struct sockaddr_in to[SOCKET_BATCH];
} Sock;

typedef struct {
  napi_env env;
  int epfd, tfd;
  uv_poll_t poll;
  napi_ref onEvents, meta;
  uint32_t *metaData;
  napi_async_context context;
  Sock **sockets;
  uint32_t socketCount, socketCapacity;
  uint32_t *dirty;
  uint32_t dirtyCount;
  char *slots;
  struct mmsghdr recvMsgs[SOCKET_BATCH];
  struct iovec recvIovs[SOCKET_BATCH];
  struct sockaddr_in from[SOCKET_BATCH];
  char *arena;
  size_t arenaUsed;
  uint32_t sendErrors;
} Io;

static void flushSocket(Io *io, Sock *sock) {
  int done = 0;
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
  io->arenaUsed = 0;
}

/* Reads what is ready: up to MAX_BATCH datagrams into the slots, meta rows filled. */
static uint32_t receive(Io *io, int *timerFired, size_t *totalBytes) {
  struct epoll_event events[64];
  int ready = epoll_wait(io->epfd, events, 64, 0);
  uint32_t count = 0;
  *totalBytes = 0;
  for (int e = 0; e < ready; e++) {
    uint32_t id = events[e].data.u32;
    if (id == TIMER_TAG) {
      uint64_t expirations;
      if (read(io->tfd, &expirations, sizeof expirations) == sizeof expirations) *timerFired = 1;
      continue;
    }
    Sock *sock = id < io->socketCount ? io->sockets[id] : NULL;
    if (!sock || count >= MAX_BATCH) continue; /* level-triggered: the rest comes on the next wake-up */
    unsigned want = MAX_BATCH - count < SOCKET_BATCH ? MAX_BATCH - count : SOCKET_BATCH;
    for (unsigned i = 0; i < want; i++) {
      io->recvIovs[i].iov_base = io->slots + (size_t)(count + i) * SLOT_BYTES;
      io->recvIovs[i].iov_len = SLOT_BYTES;
      memset(&io->recvMsgs[i].msg_hdr, 0, sizeof(struct msghdr));
      io->recvMsgs[i].msg_hdr.msg_iov = &io->recvIovs[i];
      io->recvMsgs[i].msg_hdr.msg_iovlen = 1;
      io->recvMsgs[i].msg_hdr.msg_name = &io->from[i];
      io->recvMsgs[i].msg_hdr.msg_namelen = sizeof(struct sockaddr_in);
    }
    int got = recvmmsg(sock->fd, io->recvMsgs, want, MSG_DONTWAIT, NULL);
    for (int i = 0; i < got; i++) {
      uint32_t *row = io->metaData + (size_t)(count + i) * 4;
      row[0] = id;
      row[1] = ntohl(io->from[i].sin_addr.s_addr);
      row[2] = ntohs(io->from[i].sin_port);
      row[3] = io->recvMsgs[i].msg_len;
      *totalBytes += io->recvMsgs[i].msg_len;
    }
    if (got > 0) count += got;
  }
  return count;
}

#endif
