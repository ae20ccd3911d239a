"""The Gradio web chat: a thin adapter over the public `assistant` API.

    from ui.app import build_app        # Blocks with every event wired, not launched
    from ui.launch import launch        # safe defaults: 127.0.0.1, no share, no analytics, bounded queue
    from ui import render               # pure Answer -> Markdown / HTML functions (no gradio import)

Importing this package imports nothing heavy; `ui.app` and `ui.launch` import gradio.
"""
