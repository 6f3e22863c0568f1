import { Request } from "express";
import { Pool } from "pg";
import { PrismaClient } from "@prisma/client";
import knex from "./db";

const pool = new Pool();
const prisma = new PrismaClient();

export async function findUser(req: Request) {
  const name = String(req.query.name);
  // ruleid: sql-injection
  const a = await pool.query(`SELECT * FROM users WHERE name = '${name}'`);
  // ruleid: sql-injection
  const b = await pool.query("SELECT * FROM users WHERE name = '" + name + "'");
  // ok: sql-injection
  const c = await pool.query("SELECT * FROM users WHERE name = $1", [name]);
  // ok: sql-injection
  const d = await prisma.$queryRaw`SELECT * FROM users WHERE name = ${name}`;
  // ruleid: sql-injection
  const e = await prisma.$queryRawUnsafe(`SELECT * FROM users WHERE name = '${name}'`);
  // ruleid: sql-injection
  const f = await knex("users").whereRaw(`name = '${name}'`);
  // ok: sql-injection
  const g = await knex("users").whereRaw("name = ?", [name]);
  // ruleid: sql-injection
  const h = await pool.query(`SELECT * FROM users WHERE id = ${req.query.id}`);
  // ok: sql-injection
  const i = await pool.query("SELECT * FROM users WHERE id = $1", [req.query.id]);
  return [a, b, c, d, e, f, g, h, i];
}
