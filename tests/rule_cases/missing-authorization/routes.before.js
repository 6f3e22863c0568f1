const express = require("express");
const { requireAuth, requireAdmin } = require("./auth");
const { listOrders, deleteUser } = require("./handlers");

const app = express();
const router = express.Router();
// ruleid: missing-authorization
router.use(requireAuth);
router.get("/orders", listOrders);
// ruleid: missing-authorization
app.delete("/admin/users/:id", requireAdmin, deleteUser);
app.use("/api", router);

module.exports = app;
