const express = require("express");
// ruleid: csrf-protection-disabled
const csurf = require("csurf");

const app = express();
// ruleid: csrf-protection-disabled
app.use(csrfProtection);
app.post("/account/email", updateEmail);

module.exports = app;
