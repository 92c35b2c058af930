; TSX additions on top of typescript.scm (which is prepended at load time).
; React components are plain functions, arrow functions and classes, already captured by
; typescript.scm, as are higher-order components (const Button = memo(...), forwardRef(...)).
; Nothing TSX-only yet: the file stays so TSX-only patterns have a home.

