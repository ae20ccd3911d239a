"""paperchat: a research assistant over scientific abstracts."""
