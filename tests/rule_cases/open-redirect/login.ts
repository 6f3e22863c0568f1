import { Request, Response } from "express";

export function afterLogin(req: Request, res: Response) {
  // ruleid: open-redirect
  res.redirect(req.query.returnTo as string);
}

export function home(req: Request, res: Response) {
  // ok: open-redirect
  res.redirect("/dashboard");
}
