"""CAST to and from complex64 (BirdNET casts its RFFT2D output to float32)."""

from opmodel import Case, inp, out

CASES = []
for target in ["float32", "float64", "int32", "complex64", "bool"]:
    CASES.append(Case(f"cast_complex64_to_{target}", "CAST", [inp("complex64", [2, 5])], [out(target)], version=5))
for source in ["float32", "float64", "int32", "int64", "uint8", "bool"]:
    CASES.append(Case(f"cast_{source}_to_complex64", "CAST", [inp(source, [3, 4])], [out("complex64")], version=5))
