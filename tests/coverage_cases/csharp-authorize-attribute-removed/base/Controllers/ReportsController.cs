public class ReportsController : Controller
{
    [Authorize(Roles = "Auditor")]
    public IActionResult Export(int id)
    {
        return File(_reports.Export(id), "text/csv");
    }
}
