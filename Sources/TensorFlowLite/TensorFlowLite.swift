// `import TensorFlowLite` for code written against TensorFlowLiteSwift (the CocoaPod
// `TensorFlowLiteSwift`). This module replaces that pod: link one or the other, never both, since
// both define `Interpreter`, `Tensor` and friends.
//
// Everything comes from the runtime, which already has TensorFlowLiteSwift's names
// (`Interpreter`, `Interpreter.Options`, `InterpreterOptions`, `Tensor`, `InterpreterError`,
// `SignatureRunner`, `MetalDelegate`, `CoreMLDelegate`); the delegates run on the CPU here.
@_exported import TFLiteRuntime
