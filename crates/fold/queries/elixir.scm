; Elixir definitions: `defmodule`/`defprotocol` (modules), `defimpl` (impl), `def`, `defp`,
; `defmacro`, `defmacrop`, `defguard`, `defguardp`, `defdelegate` (functions, macros), and ExUnit
; `describe`/`test` blocks. `@doc`/`@spec` attributes are siblings, so a definition starts at `def`.

(call
  target: (identifier) @_keyword
  (arguments . (alias) @name)
  (#any-of? @_keyword "defmodule" "defprotocol")) @definition.module

(call
  target: (identifier) @_keyword
  (arguments . (alias) @name)
  (#eq? @_keyword "defimpl")) @definition.impl

(call
  target: (identifier) @_keyword
  (arguments
    .
    [
      (identifier) @name
      (call target: (identifier) @name)
      (binary_operator left: (call target: (identifier) @name) operator: "when")
      (binary_operator left: (identifier) @name operator: "when")
    ])
  (#any-of? @_keyword "def" "defp" "defguard" "defguardp" "defdelegate")) @definition.function

(call
  target: (identifier) @_keyword
  (arguments
    .
    [
      (identifier) @name
      (call target: (identifier) @name)
      (binary_operator left: (call target: (identifier) @name) operator: "when")
    ])
  (#any-of? @_keyword "defmacro" "defmacrop")) @definition.macro

(call
  target: (identifier) @_keyword
  (arguments . (string) @name)
  (do_block)
  (#any-of? @_keyword "describe" "test")) @definition.test
