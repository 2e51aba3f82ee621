"""Ledger system: the accounting database this task's agent works with, served over MCP."""
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("ledger")


@mcp.tool()
def list_invoices(customer: str | None = None, status: str = "open", limit: int = 50) -> list[dict]:
    """Invoices, newest first, optionally for one customer."""
    ...


@mcp.tool()
def get_payments(invoice_id: int) -> list[dict]:
    """Payments recorded against one invoice."""
    ...


@mcp.tool()
async def customer_balance(customer: str) -> float:
    """What a customer owes today."""
    ...


if __name__ == "__main__":
    mcp.run()
