"""Training pipelines of the shipped models, apart from the runtime code that uses them:
`default` trains the default cleaner's model (`sitesift train-default`), `isotonic` the
page-level template model of the `isotonic` method (`sitesift train-template`). Each
pipeline's choices are one frozen config object, stored in the model file it writes."""
