; Emacs Lisp definitions: `defun` (function), `defmacro` (macro), `defvar`/`defconst` (variables,
; constants), and the common definition macros read by their head symbol: `defcustom`, `defface`
; (variables), `defgroup` (module), `cl-defstruct` (struct), `cl-defun`, `cl-defgeneric`,
; `cl-defmethod`, `defsubst`, `defadvice`, `define-minor-mode`, `define-derived-mode` (functions).

(function_definition name: (symbol) @name) @definition.function
(macro_definition name: (symbol) @name) @definition.macro
(special_form "defvar" . (symbol) @name) @definition.variable
(special_form "defconst" . (symbol) @name) @definition.constant

(list . (symbol) @_head . (symbol) @name
  (#any-of? @_head "defcustom" "defface")) @definition.variable
(list . (symbol) @_head . (symbol) @name
  (#eq? @_head "defgroup")) @definition.module
(list . (symbol) @_head . [(symbol) @name (list . (symbol) @name)]
  (#eq? @_head "cl-defstruct")) @definition.struct
(list . (symbol) @_head . (symbol) @name
  (#any-of? @_head "cl-defun" "cl-defgeneric" "cl-defmethod" "defsubst" "defadvice" "define-minor-mode"
    "define-derived-mode" "define-globalized-minor-mode")) @definition.function
(list . (symbol) @_head . (symbol) @name
  (#any-of? @_head "cl-defmacro" "define-inline")) @definition.macro
