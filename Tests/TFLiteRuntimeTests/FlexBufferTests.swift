import Foundation
import Testing

@testable import TFLiteRuntime

/// FlexBuffer reader: hand-built buffers of every value kind and width, and malformed buffers.
struct FlexBufferTests {
    private func root(_ bytes: [UInt8]) throws -> FlexReference {
        try bytes.withUnsafeBytes { raw in
            // Copy so the reference outlives the closure.
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: raw.count, alignment: 8)
            copy.copyMemory(from: raw)
            return try FlexBuffer(bytes: UnsafeRawBufferPointer(copy), what: "test").root()
        }
    }

    private func le<T: FixedWidthInteger>(_ v: T) -> [UInt8] { withUnsafeBytes(of: v.littleEndian, Array.init) }

    @Test func inlineIntegersOfEveryWidth() throws {
        #expect(try root([0xFB, 0x04, 0x01]).asInt64() == -5)
        #expect(try root(le(Int16(-300)) + [0x05, 0x02]).asInt64() == -300)
        #expect(try root(le(Int32(-70000)) + [0x06, 0x04]).asInt32() == -70000)
        #expect(try root(le(Int64(-5_000_000_000)) + [0x07, 0x08]).asInt64() == -5_000_000_000)
        // AsInt32 truncates like static_cast.
        #expect(try root(le(Int64(0x1_0000_0005)) + [0x07, 0x08]).asInt32() == 5)
    }

    @Test func unsignedIntegersAndBools() throws {
        #expect(try root([0xFF, 0x08, 0x01]).asUInt64() == 255)
        #expect(try root(le(UInt16(65535)) + [0x09, 0x02]).asInt64() == 65535)
        #expect(try root(le(UInt32(4_000_000_000)) + [0x0A, 0x04]).asUInt64() == 4_000_000_000)
        #expect(try root(le(UInt64.max) + [0x0B, 0x08]).asUInt64() == UInt64.max)
        #expect(try root([0x01, 0x68, 0x01]).asBool() == true)
        #expect(try root([0x00, 0x68, 0x01]).asBool() == false)
        #expect(try root([0x01, 0x68, 0x01]).type == .bool)
    }

    @Test func floatsAndConversions() throws {
        let f = root32(Float(0.6))
        #expect(try root(f).asFloat() == Float(0.6))
        #expect(try root(le(Double(2.75).bitPattern) + [0x0F, 0x08]).asDouble() == 2.75)
        #expect(try root(le(Double(-3.9).bitPattern) + [0x0F, 0x08]).asInt32() == -3)
        #expect(try root([0x07, 0x04, 0x01]).asFloat() == 7)
        // A float cannot be 1 byte wide.
        #expect(throws: FlexBufferError.self) { try root([0x07, 0x0C, 0x01]).asFloat() }
    }

    private func root32(_ f: Float) -> [UInt8] { le(f.bitPattern) + [0x0E, 0x04] }

    @Test func indirectScalars() throws {
        // INDIRECT_INT, 64-bit value stored before its 1-byte offset.
        #expect(try root(le(Int64(-42)) + [0x08, 0x1B, 0x01]).asInt64() == -42)
        // INDIRECT_UINT 16-bit.
        #expect(try root(le(UInt16(500)) + [0x02, 0x1D, 0x01]).asUInt64() == 500)
        // INDIRECT_FLOAT 32-bit.
        #expect(try root(le(Float(1.5).bitPattern) + [0x04, 0x22, 0x01]).asFloat() == 1.5)
    }

    @Test func stringsKeysAndNull() throws {
        #expect(try root([0x02, 0x68, 0x69, 0x00, 0x03, 0x14, 0x01]).asString() == "hi")
        // A key: NUL-terminated, no length.
        #expect(try root([0x61, 0x62, 0x00, 0x03, 0x10, 0x01]).asString() == "ab")
        let null = try root([0x00, 0x00, 0x01])
        #expect(null.isNull)
        #expect(try null.asInt64() == 0)
    }

    @Test func typedAndFixedVectors() throws {
        let v = try root([0x03, 0x01, 0x02, 0xFF, 0x03, 0x2C, 0x01])
        #expect(try v.vectorCount() == 3)
        #expect(try v.elements().map { try $0.asInt64() } == [1, 2, -1])
        // 16-bit unsigned typed vector.
        let u = try root([0x02, 0x00] + le(UInt16(7)) + le(UInt16(65000)) + [0x04, 0x31, 0x01])
        #expect(try u.elements().map { try $0.asUInt64() } == [7, 65000])
        // VECTOR_FLOAT2 of 32-bit floats: no length prefix.
        let f2 = try root(le(Float(0.5).bitPattern) + le(Float(-2).bitPattern) + [0x08, 0x4A, 0x01])
        #expect(try f2.elements().map { try $0.asFloat() } == [0.5, -2])
        // VECTOR_BOOL.
        let b = try root([0x02, 0x01, 0x00, 0x02, 0x90, 0x01])
        #expect(try b.elements().map { try $0.asBool() } == [true, false])
        #expect(throws: FlexBufferError.self) { try v.element(3) }
    }

    @Test func untypedVectorWithMixedTypes() throws {
        let v = try root([0x02, 0x07, 0x01, 0x04, 0x68, 0x04, 0x28, 0x01])
        #expect(try v.element(0).type == .int)
        #expect(try v.element(0).asInt64() == 7)
        #expect(try v.element(1).asBool())
    }

    /// {"a": 1, "b": -2} built by hand.
    static let smallMap: [UInt8] = [
        0x61, 0, 0x62, 0,  // keys
        0x02, 0x05, 0x04,  // keys vector: length 2, offsets to "a" and "b"
        0x02, 0x01, 0x02,  // map prefix: keys offset, keys width, length
        0x01, 0xFE, 0x04, 0x04,  // values and their types
        0x04, 0x24, 0x01,  // root: offset, MAP, width 1
    ]

    @Test func mapsByKey() throws {
        let m = try root(Self.smallMap)
        #expect(m.type == .map)
        #expect(try m.mapKeys() == ["a", "b"])
        #expect(try m.lookup("a").asInt32() == 1)
        #expect(try m.lookup("b").asInt32() == -2)
        #expect(try m.lookup("c").isNull)
        #expect(try m.value(forKey: "c") == nil)
    }

    /// Reads everything reachable, as a consumer walking the tree would.
    private func walk(_ r: FlexReference) throws {
        switch r.type {
        case .map:
            _ = try r.mapKeys()
            for e in try r.elements() { try walk(e) }
        case .vector, .vectorInt, .vectorUInt, .vectorFloat, .vectorKey, .vectorBool, .vectorInt2, .vectorFloat3,
            .vectorUInt4:
            for e in try r.elements() { try walk(e) }
        case .string, .key: _ = try r.asString()
        default:
            _ = try r.asInt64()
            _ = try r.asDouble()
        }
    }

    @Test func truncatedAndCorruptedBuffersThrowOrReadButNeverTrap() throws {
        #expect(throws: FlexBufferError.self) { try root([]) }
        #expect(throws: FlexBufferError.self) { try root([0x01, 0x04]) }
        #expect(throws: FlexBufferError.self) { try root([0x01, 0x04, 0x03]) }  // width 3
        #expect(throws: FlexBufferError.self) { try root([0x01, 0xFC, 0x01]) }  // unknown type 63
        #expect(throws: FlexBufferError.self) { try root([0x01, 0x04, 0x08]) }  // root wider than buffer
        // Every prefix of the map is rejected or read safely.
        for n in 0..<Self.smallMap.count {
            _ = try? walk(root(Array(Self.smallMap[(Self.smallMap.count - n)...])))
            _ = try? walk(root(Array(Self.smallMap[..<n])))
        }
        // Every single-byte corruption.
        for i in Self.smallMap.indices {
            for v: UInt8 in [0x00, 0x01, 0x7F, 0x80, 0xFF, 0x24, 0x28, 0x2C] {
                var b = Self.smallMap
                b[i] = v
                _ = try? walk(root(b))
            }
        }
        // Offsets that point before the buffer start.
        #expect(throws: FlexBufferError.self) { try root([0x02, 0x68, 0x69, 0x00, 0x09, 0x14, 0x01]).asString() }
        // A huge vector length.
        #expect(throws: FlexBufferError.self) { try root([0xFF, 0x01, 0x02, 0x2C, 0x01]).element(5) }
    }

    @Test func randomBuffersNeverTrap() throws {
        var rng = SplitMix64(seed: 99)
        for n in 0..<3000 {
            let count = 3 + n % 40
            var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            // Keep the root width valid half of the time so reading goes deeper.
            if n % 2 == 0 { bytes[count - 1] = [1, 2, 4, 8][n / 2 % 4] }
            _ = try? walk(root(bytes))
            _ = try? bytes.withUnsafeBytes { try DetectionOptions(flexBuffer: $0, what: "fuzz") }
        }
    }

    @Test func cyclicVectorIsCutOffByTheDepthLimit() throws {
        // An untyped vector whose only element is an offset of 0: the vector itself.
        let cyclic: [UInt8] = [0x01, 0x00, 0x28, 0x02, 0x28, 0x01]
        let r = try root(cyclic)
        #expect(throws: FlexBufferError.self) { try walk(r) }
        do {
            try walk(r)
        } catch let e as FlexBufferError {
            #expect("\(e)".contains("nested more than"))
        }
    }

    @Test(.enabled(if: TestPaths.hasSharedModels, "needs ../shared/models beside the checkout"))
    func optionsOfARealDetectionModel() throws {
        let model = try Model(path: TestPaths.sharedModel("ssd_mobilenet_v1_coco_postprocess_head_layers.tflite"))
        let graph = model.subgraphs[0]
        let op = try #require(graph.operators.first { model.operatorCodes[$0.opcodeIndex].customCode == "TFLite_Detection_PostProcess" })
        let m = try FlexBuffer(bytes: model.customOptions(of: op)).root()
        #expect(try m.mapKeys().contains("_output_quantized"))
        #expect(try m.lookup("_output_quantized").asBool())
        #expect(try m.lookup("max_detections").asInt32() == 20)
        #expect(try m.lookup("nms_iou_threshold").asFloat() == Float(0.6))
    }
}
