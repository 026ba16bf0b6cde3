def compare(a, b, tmpfs):
    return []
