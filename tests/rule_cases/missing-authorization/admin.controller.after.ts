import { Controller, Delete, Param } from "@nestjs/common";

@Controller("admin")
export class AdminController {
  @Delete("users/:id")
  remove(@Param("id") id: string) {
    return { removed: id };
  }
}
