; Java definitions. Annotations before a declaration are not its first line (see the row's
; `attributes` in src/language.rs). Fields, locals and enum constants are left out.

(class_body (method_declaration name: (identifier) @name) @definition.method)
(interface_body (method_declaration name: (identifier) @name) @definition.method)
(enum_body (enum_body_declarations (method_declaration name: (identifier) @name) @definition.method))
(constructor_declaration name: (identifier) @name) @definition.constructor
(compact_constructor_declaration name: (identifier) @name) @definition.constructor

(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
; `module-info.java`: the module declaration.
(module_declaration name: (_) @name) @definition.module
