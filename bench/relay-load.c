/*
 * Load generator for bench/relay.js and bench/relay-sfu.js, in C so that the relay, not the generator, saturates on a
 * 2-core machine (a Node sender costs ~5 us of CPU per packet, as much as the relay itself). bench/relay-load.js
 * builds it with cc and drives it over stdin/stdout, one line per message:
 *
 *   in : flows <n>                         then n lines: <mediaBytes> <mediaPps> <rtcpBytes> <rtcpPps>
 *   out: ports <src0> <sink0> <src1> <sink1> ...   each flow's sending and receiving socket on 127.0.0.1
 *   in : connect <dst0> <dst1> ...         where each flow sends (its relay proxy port)
 *   in : run <durationMs> <rateScale> <warmupMs> <drainMs>
 *   out: result <sent> <received> <packetsInWindow> <bytesInWindow> <windowUs> <p50Us> <p99Us> <maxUs> (one line per flow)
 *   in : quit
 *
 * Every packet carries its flow, sequence number and send time (CLOCK_REALTIME); sinks take the kernel's receive time
 * (SO_TIMESTAMPNS), so the one-way delay is exact however late this process reads. Delays and bytes count for
 * packets sent after warmupMs. Senders pace in 0.5 ms ticks with sendmmsg; sinks are drained with recvmmsg.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TICK_NS 500000L
#define BATCH 64
#define BIN_US 10
#define BINS 20000 /* 200 ms of delay; the last bin takes the rest */
#define MAX_BYTES 1472

typedef struct {
  int mediaBytes, rtcpBytes;
  double mediaPps, rtcpPps;
  int src, sink;
  uint64_t mediaSent, rtcpSent, received, packetsInWindow, bytesInWindow;
  uint32_t *bins;
  uint64_t maxNs;
} Flow;

static Flow *flows;
static int flowCount;

static uint64_t nowNs(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void die(const char *what) {
  fprintf(stderr, "relay-load: %s: %s\n", what, strerror(errno));
  exit(1);
}

static int udpSocket(void) {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  if (fd < 0) die("socket");
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  if (bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0) die("bind");
  int size = 4 << 20;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
  return fd;
}

static int portOf(int fd) {
  struct sockaddr_in addr;
  socklen_t len = sizeof addr;
  if (getsockname(fd, (struct sockaddr *)&addr, &len) < 0) die("getsockname");
  return ntohs(addr.sin_port);
}

/* Sends `count` packets of `bytes` on flow f, stamped with their flow, sequence number and send time. */
static void sendBurst(int f, uint64_t count, int bytes, uint64_t *seq) {
  static unsigned char data[BATCH][MAX_BYTES];
  struct mmsghdr msgs[BATCH];
  struct iovec iov[BATCH];
  while (count > 0) {
    int n = count > BATCH ? BATCH : (int)count;
    uint64_t sentNs = nowNs(CLOCK_REALTIME);
    for (int i = 0; i < n; i++) {
      uint32_t header[2] = {(uint32_t)f, (uint32_t)(*seq)++};
      memcpy(data[i], header, sizeof header);
      memcpy(data[i] + 8, &sentNs, sizeof sentNs);
      iov[i] = (struct iovec){.iov_base = data[i], .iov_len = (size_t)bytes};
      msgs[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[i], .msg_iovlen = 1}};
    }
    int sent = sendmmsg(flows[f].src, msgs, n, 0);
    if (sent < 0 && errno != EAGAIN) die("sendmmsg");
    /* A full send buffer drops the rest of the burst: they count as sent, so the loss shows. */
    count -= n;
  }
}

/* Reads everything queued on sink fd of flow f, counting packets sent at or after windowStartNs. */
static void drainSink(int f, uint64_t windowStartNs) {
  static unsigned char data[BATCH][MAX_BYTES];
  static char control[BATCH][64];
  struct mmsghdr msgs[BATCH];
  struct iovec iov[BATCH];
  for (;;) {
    for (int i = 0; i < BATCH; i++) {
      iov[i] = (struct iovec){.iov_base = data[i], .iov_len = MAX_BYTES};
      msgs[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[i], .msg_iovlen = 1, .msg_control = control[i], .msg_controllen = 64}};
    }
    int n = recvmmsg(flows[f].sink, msgs, BATCH, MSG_DONTWAIT, NULL);
    if (n <= 0) return;
    for (int i = 0; i < n; i++) {
      uint64_t rxNs = 0, txNs;
      for (struct cmsghdr *c = CMSG_FIRSTHDR(&msgs[i].msg_hdr); c; c = CMSG_NXTHDR(&msgs[i].msg_hdr, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
          struct timespec ts;
          memcpy(&ts, CMSG_DATA(c), sizeof ts);
          rxNs = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
        }
      }
      memcpy(&txNs, data[i] + 8, sizeof txNs);
      Flow *flow = &flows[f];
      flow->received++;
      if (txNs < windowStartNs || rxNs < txNs) continue;
      uint64_t delayNs = rxNs - txNs;
      flow->packetsInWindow++;
      flow->bytesInWindow += msgs[i].msg_len;
      uint64_t bin = delayNs / (BIN_US * 1000);
      flow->bins[bin < BINS ? bin : BINS - 1]++;
      if (delayNs > flow->maxNs) flow->maxNs = delayNs;
    }
  }
}

static void drainReady(int epoll, uint64_t windowStartNs) {
  struct epoll_event events[64];
  int n;
  while ((n = epoll_wait(epoll, events, 64, 0)) > 0) {
    for (int i = 0; i < n; i++) drainSink((int)events[i].data.u32, windowStartNs);
  }
}

static long percentileUs(const Flow *flow, double fraction) {
  uint64_t total = 0, seen = 0;
  for (int b = 0; b < BINS; b++) total += flow->bins[b];
  if (total == 0) return -1;
  uint64_t target = (uint64_t)(total * fraction + 0.999999);
  for (int b = 0; b < BINS; b++) {
    seen += flow->bins[b];
    if (seen >= target) return (long)b * BIN_US + BIN_US / 2;
  }
  return -1;
}

static void run(int epoll, long durationMs, double scale, long warmupMs, long drainMs) {
  for (int f = 0; f < flowCount; f++) {
    Flow *flow = &flows[f];
    drainSink(f, UINT64_MAX);
    flow->mediaSent = flow->rtcpSent = flow->received = flow->packetsInWindow = flow->bytesInWindow = flow->maxNs = 0;
    memset(flow->bins, 0, BINS * sizeof *flow->bins);
  }
  uint64_t seq = 0;
  uint64_t startNs = nowNs(CLOCK_MONOTONIC), startRealNs = nowNs(CLOCK_REALTIME);
  uint64_t windowStartNs = startRealNs + (uint64_t)warmupMs * 1000000ull;
  struct timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  for (;;) {
    double elapsedS = (double)(nowNs(CLOCK_MONOTONIC) - startNs) / 1e9;
    if (elapsedS * 1000 >= durationMs) break;
    for (int f = 0; f < flowCount; f++) {
      Flow *flow = &flows[f];
      uint64_t media = (uint64_t)(elapsedS * flow->mediaPps * scale) + 1;
      uint64_t rtcp = flow->rtcpPps > 0 ? (uint64_t)(elapsedS * flow->rtcpPps * scale) + 1 : 0;
      if (media > flow->mediaSent) sendBurst(f, media - flow->mediaSent, flow->mediaBytes, &seq);
      if (rtcp > flow->rtcpSent) sendBurst(f, rtcp - flow->rtcpSent, flow->rtcpBytes, &seq);
      flow->mediaSent = media > flow->mediaSent ? media : flow->mediaSent;
      flow->rtcpSent = rtcp > flow->rtcpSent ? rtcp : flow->rtcpSent;
    }
    drainReady(epoll, windowStartNs);
    next.tv_nsec += TICK_NS;
    if (next.tv_nsec >= 1000000000L) { next.tv_sec++; next.tv_nsec -= 1000000000L; }
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
  }
  uint64_t endRealNs = nowNs(CLOCK_REALTIME);
  uint64_t drainEndNs = nowNs(CLOCK_MONOTONIC) + (uint64_t)drainMs * 1000000ull;
  while (nowNs(CLOCK_MONOTONIC) < drainEndNs) {
    drainReady(epoll, windowStartNs);
    usleep(1000);
  }
  for (int f = 0; f < flowCount; f++) {
    Flow *flow = &flows[f];
    printf("result %llu %llu %llu %llu %llu %ld %ld %llu\n", (unsigned long long)(flow->mediaSent + flow->rtcpSent),
           (unsigned long long)flow->received, (unsigned long long)flow->packetsInWindow, (unsigned long long)flow->bytesInWindow,
           (unsigned long long)((endRealNs - windowStartNs) / 1000), percentileUs(flow, 0.5), percentileUs(flow, 0.99),
           (unsigned long long)(flow->maxNs / 1000));
  }
  fflush(stdout);
}

int main(void) {
  char line[1 << 16];
  int epoll = epoll_create1(0);
  if (epoll < 0) die("epoll_create1");
  while (fgets(line, sizeof line, stdin)) {
    if (sscanf(line, "flows %d", &flowCount) == 1) {
      flows = calloc((size_t)flowCount, sizeof *flows);
      printf("ports");
      for (int f = 0; f < flowCount; f++) {
        Flow *flow = &flows[f];
        if (!fgets(line, sizeof line, stdin) ||
            sscanf(line, "%d %lf %d %lf", &flow->mediaBytes, &flow->mediaPps, &flow->rtcpBytes, &flow->rtcpPps) != 4) {
          fprintf(stderr, "relay-load: flow %d: expected <mediaBytes> <mediaPps> <rtcpBytes> <rtcpPps>\n", f);
          return 2;
        }
        if (flow->mediaBytes < 16 || flow->mediaBytes > MAX_BYTES || (flow->rtcpPps > 0 && (flow->rtcpBytes < 16 || flow->rtcpBytes > MAX_BYTES))) {
          fprintf(stderr, "relay-load: flow %d: packet sizes must be 16..%d bytes\n", f, MAX_BYTES);
          return 2;
        }
        flow->src = udpSocket();
        flow->sink = udpSocket();
        int on = 1;
        setsockopt(flow->sink, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
        struct epoll_event event = {.events = EPOLLIN, .data.u32 = (uint32_t)f};
        if (epoll_ctl(epoll, EPOLL_CTL_ADD, flow->sink, &event) < 0) die("epoll_ctl");
        flow->bins = calloc(BINS, sizeof *flow->bins);
        printf(" %d %d", portOf(flow->src), portOf(flow->sink));
      }
      printf("\n");
      fflush(stdout);
    } else if (strncmp(line, "connect", 7) == 0) {
      char *cursor = line + 7;
      for (int f = 0; f < flowCount; f++) {
        int port = (int)strtol(cursor, &cursor, 10);
        struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        if (connect(flows[f].src, (struct sockaddr *)&addr, sizeof addr) < 0) die("connect");
      }
      printf("connected\n");
      fflush(stdout);
    } else {
      long durationMs, warmupMs, drainMs;
      double scale;
      if (sscanf(line, "run %ld %lf %ld %ld", &durationMs, &scale, &warmupMs, &drainMs) == 4) run(epoll, durationMs, scale, warmupMs, drainMs);
      else if (strncmp(line, "quit", 4) == 0) return 0;
      else {
        fprintf(stderr, "relay-load: unknown command: %s", line);
        return 2;
      }
    }
  }
  return 0;
}
