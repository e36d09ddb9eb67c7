// Where the harness lives and where runs write: one definition for every command.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const RESULTS_ROOT = path.join(REPO_ROOT, 'results');
