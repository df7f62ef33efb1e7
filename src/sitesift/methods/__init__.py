"""The cleaning methods, each in a module or folder named for its registered name.

`base` holds the interface and the registry (`get_cleaner`, `method_names`); `shared` the
helpers several methods use (block trees and keywords, entropy, HTML source lines, model
state checks). A method's module is imported when the method is first asked for
(`base._BUILTIN`), so this package imports nothing itself.
"""
