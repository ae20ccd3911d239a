def derive_label(text: str) -> str:
    return text[:60]
