"""An MCP server over the review's own tools (``secreview-mcp``).

* :mod:`.review_tools`: ``list_rules``, ``explain_rule``, ``review_diff`` as registry tools;
* :mod:`.service`: the registry the server exposes (SDK-free, usable without the extra);
* :mod:`.server`: the MCP SDK glue (stdio and streamable HTTP);
* :mod:`.cli`: the command line.

Importing this package does not import the MCP SDK; the plugin never imports it at all.
"""
