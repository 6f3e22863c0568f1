public class ReportsController : Controller
{
    public IActionResult Export(int id)
    {
        return File(_reports.Export(id), "text/csv");
    }
}
