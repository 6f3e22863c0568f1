const crypto = require("crypto");

function issue(res) {
  // ruleid: insecure-randomness
  const resetToken = Math.random().toString(36).slice(2);
  // ok: insecure-randomness
  const resetToken2 = crypto.randomBytes(32).toString("hex");
  // ruleid: insecure-randomness
  res.cookie("session", Math.random().toString(36).slice(2), { httpOnly: true });
  // ok: insecure-randomness
  const jitter = Math.random() * 100;
  return { resetToken, resetToken2, jitter };
}

module.exports = issue;
