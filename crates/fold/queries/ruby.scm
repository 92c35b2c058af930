; Ruby definitions: classes, modules, methods (instance and `def self.x`), `class << self`, and
; RSpec/minitest-style blocks (`describe`/`context`/`it` ... `do`).

(class name: (_) @name) @definition.class
(module name: (_) @name) @definition.module
(singleton_class value: (_) @name) @definition.class
(method
  name: (identifier) @name
  (#eq? @name "initialize")) @definition.constructor
(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method

(call
  method: (identifier) @_test_method
  arguments: (argument_list . [(string) (constant) (scope_resolution)] @name)
  block: (do_block)
  (#any-of? @_test_method "describe" "context" "it" "shared_examples")) @definition.test
