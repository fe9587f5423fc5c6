// Preloaded into a gateway run from the sources (node --import) to show what the gateway costs once
// @secretlint/profiler stops recording marks (secretlint/secretlint#1633): its mark() becomes a no-op.
import { secretLintProfiler } from '@secretlint/profiler';

secretLintProfiler.mark = () => {};
