import axios from "axios";
import { Request, Response } from "express";

export async function proxy(req: Request, res: Response) {
  // ruleid: ssrf
  const upstream = await fetch(req.query.url as string);
  // ruleid: ssrf
  const image = await axios.get(req.body.imageUrl);
  // ok: ssrf
  const config = await fetch(`${process.env.CONFIG_SERVICE}/v1/config`);
  res.json({ status: upstream.status, size: image.data.length, config: config.ok });
}
