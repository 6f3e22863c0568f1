const fs = require("fs");
const https = require("https");

// ruleid: tls-verification-disabled
const insecure = new https.Agent({ rejectUnauthorized: false });
// ok: tls-verification-disabled
const pinned = new https.Agent({ ca: fs.readFileSync("/etc/ssl/internal-ca.pem") });
// ruleid: tls-verification-disabled
process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0";

module.exports = { insecure, pinned };
