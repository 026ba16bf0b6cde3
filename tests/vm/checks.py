def scenario(r, devtmpfs):
    return []


def devtmpfs_untouched(r):
    return []
