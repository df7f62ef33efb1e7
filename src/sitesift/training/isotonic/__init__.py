"""Training the `isotonic` method's template model: site-level node labels (`labels`),
the corpus pages and the fit (`pipeline`), and node-level measures (`evaluation`)."""
