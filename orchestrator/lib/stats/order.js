/**
 * Orders names (peers, links, flows, directions: ASCII) by code unit, for output that sorts the same on every host.
 * Not localeCompare: its first call loads ICU's collator, ~8 ms, which on the relay's event loop held the datagrams
 * due then that long.
 * @param {string} a @param {string} b @returns {number}
 */
export const byCodeUnit = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
