; PHP definitions (the PHP grammar with embedded HTML). `#[Attribute]` lists before a
; declaration are not its first line. Properties and constants are left out.

(namespace_definition name: (namespace_name) @name) @definition.module
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(method_declaration
  name: (name) @name
  (#eq? @name "__construct")) @definition.constructor
(method_declaration name: (name) @name) @definition.method
(function_definition name: (name) @name) @definition.function
