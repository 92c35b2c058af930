; OCaml definitions: modules and functors, module types (as interfaces), type definitions,
; classes and their methods, and `let` bindings that define functions (with parameters, or bound
; to `fun`/`function`). Plain values and `let () = ...` are left out.

(module_definition (module_binding (module_name) @name)) @definition.module
(module_type_definition (module_type_name) @name) @definition.interface
(type_definition (type_binding name: (type_constructor) @name)) @definition.type
(class_definition (class_binding (class_name) @name)) @definition.class
(method_definition (method_name) @name) @definition.method
(value_definition (let_binding pattern: (value_name) @name (parameter))) @definition.function
(value_definition
  (let_binding
    pattern: (value_name) @name
    body: [(fun_expression) (function_expression)])) @definition.function
