const child_process = require("child_process");
const { exec, execFile, spawn } = child_process;

function handler(req, res, callback) {
  // ruleid: command-injection
  exec(`git log ${req.query.ref}`, callback);
  // ruleid: command-injection
  child_process.execSync("tar xf " + req.body.archive);
  // ok: command-injection
  execFile("git", ["log", "--", req.query.ref], callback);
  // ruleid: command-injection
  spawn("sh", ["-c", req.query.cmd], { shell: true });
  // ok: command-injection
  const match = /^v(\d+)$/.exec(req.query.version);
  // ok: command-injection
  exec("git status", callback);
  res.json({ match });
}

module.exports = handler;
