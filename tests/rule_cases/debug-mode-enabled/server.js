const express = require("express");
const errorhandler = require("errorhandler");

const app = express();
// ruleid: debug-mode-enabled
app.use(errorhandler());

module.exports = app;
