const express = require("express");

const app = express();

app.get("/search", (req, res) => {
  // ruleid: xss
  res.send("<p>Results for " + req.query.q + "</p>");
});

app.get("/api/search", (req, res) => {
  // ok: xss
  res.json({ query: req.query.q });
});

module.exports = app;
