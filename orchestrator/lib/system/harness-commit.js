// The commit of the harness checkout a run was made with, read from .git without running git: a figure on a
// reproduction page names the code that measured it. Null outside a git checkout or on anything unexpected. Whether
// the checkout had uncommitted changes asks git itself (harnessTreeDirty).
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const SHA = /^[0-9a-f]{40}$/;
/** .git files and refs are a few bytes; packed-refs of a large clone a few MB. */
const MAX_BYTES = 16 * 1024 * 1024;

/** @param {string} file @returns {string|null} */
function readSmall(file) {
  try {
    const stat = statSync(file);
    return stat.isFile() && stat.size <= MAX_BYTES ? readFileSync(file, 'utf8') : null;
  } catch {
    return null;
  }
}

/**
 * The git directory of a checkout: `.git` itself, or the one a worktree's `.git` file points to.
 * @param {string} root @returns {string|null}
 */
function gitDir(root) {
  const dotGit = path.join(root, '.git');
  const pointer = readSmall(dotGit);
  if (pointer === null) return statSafe(dotGit)?.isDirectory() ? dotGit : null;
  const match = /^gitdir: (.+)$/m.exec(pointer);
  return match ? path.resolve(root, match[1].trim()) : null;
}

/** @param {string} file */
function statSafe(file) {
  try { return statSync(file); } catch { return null; }
}

/**
 * @param {string} root the checkout's top folder
 * @returns {string|null} HEAD's 40-hex commit
 */
export function harnessCommit(root) {
  const dir = gitDir(root);
  if (!dir) return null;
  const head = readSmall(path.join(dir, 'HEAD'))?.trim() ?? '';
  if (SHA.test(head)) return head;
  const ref = /^ref: (refs\/[\w./-]+)$/.exec(head)?.[1];
  if (!ref || ref.includes('..')) return null;
  // A worktree keeps HEAD in its own folder and refs in the main repository's (named by commondir).
  const common = readSmall(path.join(dir, 'commondir'))?.trim();
  const refsDir = common ? path.resolve(dir, common) : dir;
  const loose = readSmall(path.join(refsDir, ref))?.trim();
  if (loose && SHA.test(loose)) return loose;
  const packed = readSmall(path.join(refsDir, 'packed-refs')) ?? '';
  const line = packed.split('\n').find((l) => l.endsWith(` ${ref}`));
  const sha = line?.split(' ')[0];
  return sha && SHA.test(sha) ? sha : null;
}

/**
 * Whether the checkout had uncommitted changes (tracked or untracked files), so a record can say its commit is not
 * all that ran. This one question needs git's own index logic; --no-optional-locks keeps it from writing the index.
 * @param {string} root the checkout's top folder
 * @returns {boolean|null} null outside a git checkout, without git, or on any failure
 */
export function harnessTreeDirty(root) {
  try {
    const out = execFileSync('git', ['--no-optional-locks', 'status', '--porcelain'], { cwd: root, timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] });
    return out.length > 0;
  } catch {
    return null;
  }
}
