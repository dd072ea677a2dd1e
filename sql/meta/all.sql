-- Every meta value at once (afr_meta is a few dozen rows): read once per store object.
SELECT key, value FROM afr_meta
