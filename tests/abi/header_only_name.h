/* A fixture for check_symbols.py: one declaration that the library does not export.
   The test that uses it must fail (should_fail), proving that the check catches a name
   added to the header alone. */
QY_API int qy_declared_but_not_exported(void);
