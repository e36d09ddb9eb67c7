/**
 * Every bound the harness puts on its input, in one place: checked when a scenario, suite, assertions file,
 * baseline or trace is loaded (an InputError, exit 2, naming the file and field), listed in
 * docs/scenario-format.md "Limits". They keep a hostile or mistaken file from exhausting memory, processes or
 * disk before validation can refuse it. Pure: no I/O.
 */

/** A day: the longest run (and scaled schedule) a scenario may ask for. */
export const MAX_DURATION_S = 86_400;
/** The netem backend gives each peer a /30 in the upper half of one /24, sixteen on each side of the bottleneck. */
export const MAX_PEERS = 32;

/** Each ramp step reconfigures every target link (several tc commands each): at most 10 a second. */
export const MIN_RAMP_EVERY_S = 0.1;
/** Entries (steps and ramps) in network.schedule. */
export const MAX_SCHEDULE_ENTRIES = 100_000;
/**
 * Link changes the schedule compiles to (a step: one per target link; a ramp: one per step per target link),
 * counted before any is built: a day-long ramp every 0.2 s on one link is 432 001 (about 100 MB while compiling).
 */
export const MAX_SCHEDULE_CHANGES = 500_000;

/**
 * Load participants of an SFU room (`load.participants`): one Go process each (sfu/load-participants.js), 360p
 * simulcast from files; the target room is 50.
 */
export const MAX_LOAD_PARTICIPANTS = 50;
/** A line a load participant writes (an SDP is a few kB): longer is refused unread and the participant failed. */
export const MAX_LOAD_LINE_CHARS = 256 * 1024;
/** Lines a load participant may write per second of its life (one counters line, states, descriptions), plus a start's worth. */
export const MAX_LOAD_LINES_PER_S = 20;

/** Entries in a scenario's `flows`. */
export const MAX_FLOWS = 100;
/** Kernel flows (tcp, tcp-short, udp): two network namespaces, two TUN devices and two socat bridges each. */
export const MAX_KERNEL_FLOWS = 100;
/** Bursts of one tcp-short flow, and its default `count`: each burst is one iperf3 server and client. */
export const MAX_SHORT_TCP_BURSTS = 1_000;
/** iperf3 servers of one run (one per tcp and udp flow, one per tcp-short burst), all started before the call. */
export const MAX_IPERF3_SERVERS = 1_000;
export const MAX_BURST_BYTES = 1_000_000_000;
/**
 * A TCP flow's socket buffers (iperf3 -w, which caps its window): from Linux's smallest send buffer to 16 MiB; the kernel
 * doubles what is asked and caps it at net.core.wmem_max / rmem_max.
 */
export const MIN_TCP_WINDOW_BYTES = 2_048;
export const MAX_TCP_WINDOW_BYTES = 16 * 1024 * 1024;

/** A scenario, suite, assertions file, baseline or suite summary: bytes on disk. */
export const MAX_JSON_FILE_BYTES = 16 * 1024 * 1024;
/** Arrays and objects inside one another in such a file (the scenario format needs 6). */
export const MAX_JSON_DEPTH = 64;

/** A mahimahi trace file, and a log `trace convert` reads: bytes on disk (8 million lines of 8 digits). */
export const MAX_TRACE_FILE_BYTES = 64 * 1024 * 1024;
/** Delivery opportunities in one trace (a day of opportunities at 10 Gbit/s would not fit in memory). */
export const MAX_OPPORTUNITIES = 20_000_000;
/** A trace's timestamps, and so its period: a day in milliseconds. */
export const MAX_TRACE_MS = MAX_DURATION_S * 1000;

/**
 * result.json is one JSON string: V8 cannot build one above 2^29 − 24 characters (512 MiB), and the report embeds
 * the same data. A run whose estimated result exceeds this is refused at load (lib/result/result-size.js).
 */
export const MAX_RESULT_BYTES = 256 * 1024 * 1024;
/**
 * A result.json read back (report, compare, suite, merge, history, reproduce): half again the largest a run may
 * write, and under V8's 512 MiB string, so any real result fits and a huge or endless file is refused unread.
 */
export const MAX_RESULT_FILE_BYTES = MAX_RESULT_BYTES * 1.5;
