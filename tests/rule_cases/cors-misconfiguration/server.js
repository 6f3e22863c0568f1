const cors = require("cors");
const express = require("express");

const app = express();

app.use((req, res, next) => {
  // ruleid: cors-misconfiguration
  res.setHeader("Access-Control-Allow-Origin", req.headers.origin);
  res.setHeader("Access-Control-Allow-Credentials", "true");
  next();
});

// ruleid: cors-misconfiguration
app.use(cors({ origin: true, credentials: true }));
// ruleid: cors-misconfiguration
app.use(cors({ origin: "*", credentials: true }));
// ok: cors-misconfiguration
app.use(cors({ origin: ["https://app.example.com"], credentials: true }));

app.get("/public/status", (req, res) => {
  // ok: cors-misconfiguration
  res.setHeader("Access-Control-Allow-Origin", "*");
  res.json({ ok: true });
});

module.exports = app;
