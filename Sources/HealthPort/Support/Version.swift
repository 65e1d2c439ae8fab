/// healthport's version: `healthport --version` prints it and folder outputs record it in their
/// manifest.
package let healthportVersion = "0.2.0"
