// Tiny reporter shared by the checks: every check prints what it verified, and the process
// exits non-zero when any check failed.
export function reporter(title) {
  let failures = 0;
  let checks = 0;
  const r = {
    ok(cond, what, detail) {
      checks++;
      if (cond) return true;
      failures++;
      console.log(`  FAIL ${what}${detail ? `: ${detail}` : ''}`);
      return false;
    },
    fail(what, detail) {
      return r.ok(false, what, detail);
    },
    info(line) {
      console.log(`  ${line}`);
    },
    done() {
      console.log(`  ${title}: ${checks - failures}/${checks} assertions hold`);
      process.exitCode = failures ? 1 : 0;
      return failures;
    },
  };
  return r;
}
