const express = require("express");
const { listOrders, deleteUser } = require("./handlers");

const app = express();
const router = express.Router();
router.get("/orders", listOrders);
app.delete("/admin/users/:id", deleteUser);
app.use("/api", router);

module.exports = app;
