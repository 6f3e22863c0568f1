const express = require("express");

const app = express();
app.post("/account/email", updateEmail);

module.exports = app;
