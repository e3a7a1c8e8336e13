extension OpRegistry {
    /// Control flow over subgraphs (IF, WHILE, CALL_ONCE), resource variables and hash tables.
    static var controlFlowKernels: [BuiltinOperator: KernelFactory] {
        [
            .if: { try IfKernel($0) },
            .while: { try WhileKernel($0) },
            .callOnce: { try CallOnceKernel($0) },
            .varHandle: { try VarHandleKernel($0) },
            .assignVariable: { try AssignVariableKernel($0) },
            .readVariable: { try ReadVariableKernel($0) },
            .hashtable: { try HashtableKernel($0) },
            .hashtableImport: { try HashtableImportKernel($0) },
            .hashtableFind: { try HashtableFindKernel($0) },
            .hashtableSize: { try HashtableSizeKernel($0) },
        ]
    }
}
