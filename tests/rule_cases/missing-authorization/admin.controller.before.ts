import { Controller, Delete, Param, UseGuards } from "@nestjs/common";
import { AuthGuard } from "@nestjs/passport";

@Controller("admin")
// ruleid: missing-authorization
@UseGuards(AuthGuard("jwt"))
export class AdminController {
  @Delete("users/:id")
  remove(@Param("id") id: string) {
    return { removed: id };
  }
}
