import { Controller, Get } from "@nestjs/common";
import { Public } from "./public.decorator";

@Controller()
export class HealthController {
  // ruleid: missing-authorization
  @Public()
  @Get("healthz")
  health() {
    return { ok: true };
  }
}
