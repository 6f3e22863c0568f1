const libxmljs = require("libxmljs");

function importCatalog(req, res) {
  // ruleid: xxe
  const doc = libxmljs.parseXml(req.body, { noent: true });
  // ok: xxe
  const safe = libxmljs.parseXml(req.body, { noent: false });
  res.json({ items: doc.find("//item").length + safe.find("//item").length });
}

module.exports = importCatalog;
