const express = require("express");
const vm = require("vm");

const app = express();

app.get("/calc", (req, res) => {
  // ruleid: code-injection
  const result = eval(req.query.expr);
  // ruleid: code-injection
  const fn = new Function("x", req.body.source);
  // ruleid: code-injection
  const out = vm.runInNewContext(req.query.code, {});
  // ok: code-injection
  const parsed = JSON.parse(req.body.payload);
  res.json({ result, fn, out, parsed });
});
