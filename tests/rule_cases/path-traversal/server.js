const express = require("express");
const fs = require("fs");
const path = require("path");

const app = express();

app.get("/files/:name", (req, res) => {
  // ruleid: path-traversal
  res.sendFile(path.join(__dirname, "uploads", req.params.name));
});

app.get("/static/:name", (req, res) => {
  // ok: path-traversal
  res.sendFile(req.params.name, { root: path.join(__dirname, "uploads") });
});

app.get("/raw", (req, res) => {
  // ruleid: path-traversal
  fs.createReadStream("/data/" + req.query.file).pipe(res);
});

module.exports = app;
