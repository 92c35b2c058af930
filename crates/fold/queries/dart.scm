; Dart definitions: classes, mixins (as traits), extensions (as impl), enums, functions, methods,
; getters and setters (as properties), constructors (generative, const and factory) and type
; aliases. Annotations (`@override`) are not a first line.

(class_declaration name: (identifier) @name) @definition.class
(mixin_declaration name: (identifier) @name) @definition.trait
(extension_declaration name: (identifier) @name) @definition.impl
(enum_declaration name: (identifier) @name) @definition.enum
(type_alias (type_identifier) @name) @definition.type

(function_declaration signature: (function_signature name: (identifier) @name)) @definition.function

; A named constructor (`Cart.empty`) is named by its second part.
(method_declaration
  signature: (method_signature
    (factory_constructor_signature name: (identifier) name: (identifier) @name))) @definition.constructor
(method_declaration
  signature: (method_signature
    (constructor_signature name: (identifier) name: (identifier) @name))) @definition.constructor
(declaration (constructor_signature name: (identifier) name: (identifier) @name)) @definition.constructor
(declaration (factory_constructor_signature name: (identifier) name: (identifier) @name)) @definition.constructor
(method_declaration
  signature: (method_signature (factory_constructor_signature name: (identifier) @name))) @definition.constructor
(method_declaration
  signature: (method_signature (constructor_signature name: (identifier) @name))) @definition.constructor
(declaration (constructor_signature name: (identifier) @name)) @definition.constructor
(declaration (constant_constructor_signature name: (identifier) @name)) @definition.constructor
(declaration (factory_constructor_signature name: (identifier) @name)) @definition.constructor

(method_declaration
  signature: (method_signature (function_signature name: (identifier) @name))) @definition.method
(method_declaration
  signature: (method_signature (getter_signature name: (identifier) @name))) @definition.property
(method_declaration
  signature: (method_signature (setter_signature name: (identifier) @name))) @definition.property
(method_declaration
  signature: (method_signature (operator_signature) @name)) @definition.method
(declaration (function_signature name: (identifier) @name)) @definition.method
