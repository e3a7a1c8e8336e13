import Foundation
import OpenMLKitVision

/// The real photos the generated sequences are made of, from `../shared/images`, with the boxes of
/// their objects.
///
/// The boxes were measured once with the COCO SSD MobileNet v1 detector
/// (`coco_ssd_mobilenet_v1_1.0_quant_2018_06_29_metadata.tflite` through ``ObjectDetector``, score
/// threshold 0.3, on the whole photo) and are hard-coded here, in the upright photo's pixels, so
/// that the benchmark does not depend on a detection model. Where the detector gave overlapping
/// duplicates, the best-scoring box of each object was kept.
enum BenchmarkPhotos {
    /// A photo and the boxes of the objects in it.
    struct Photo: Sendable {
        let name: String
        /// The photo's upright size when measured (checked on loading).
        let width: Int
        let height: Int
        let objects: [CGRect]
    }

    /// Photos the camera pans over in the ``TrackingScenario/pan`` scenario, in variant order.
    static let panned: [Photo] = [
        Photo(
            name: "pets.jpg", width: 512, height: 430,
            objects: [CGRect(x: 121, y: 49, width: 130, height: 246), CGRect(x: 343, y: 162, width: 152, height: 207)]),
        Photo(
            name: "cats_and_dogs.jpg", width: 1200, height: 600,
            objects: [
                CGRect(x: 55, y: 397, width: 393, height: 199), CGRect(x: 390, y: 198, width: 276, height: 402),
                CGRect(x: 606, y: 154, width: 387, height: 446),
            ]),
        Photo(name: "cat.bmp", width: 512, height: 341, objects: [CGRect(x: 47, y: 45, width: 316, height: 289)]),
        Photo(
            name: "multi_objects.jpg", width: 902, height: 358,
            objects: [
                CGRect(x: 33, y: 170, width: 201, height: 172), CGRect(x: 266, y: 152, width: 132, height: 204),
                CGRect(x: 426, y: 146, width: 101, height: 102), CGRect(x: 684, y: 116, width: 78, height: 105),
                CGRect(x: 654, y: 241, width: 134, height: 107),
            ]),
        Photo(name: "owl.jpg", width: 512, height: 384, objects: [CGRect(x: 153, y: 10, width: 179, height: 357)]),
        Photo(
            name: "bird.jpg", width: 2000, height: 1508, objects: [CGRect(x: 470, y: 100, width: 1083, height: 1312)]),
        Photo(
            name: "sparrow.png", width: 1280, height: 851, objects: [CGRect(x: 470, y: 211, width: 464, height: 397)]),
    ]

    /// Photos whose object (the central 80 % of its box) becomes a moving patch.
    static let patches: [Photo] = [
        Photo(name: "cat.bmp", width: 512, height: 341, objects: [CGRect(x: 47, y: 45, width: 316, height: 289)]),
        Photo(
            name: "bird.jpg", width: 2000, height: 1508, objects: [CGRect(x: 470, y: 100, width: 1083, height: 1312)]),
        Photo(name: "owl.jpg", width: 512, height: 384, objects: [CGRect(x: 153, y: 10, width: 179, height: 357)]),
        Photo(name: "parrot.jpg", width: 512, height: 929, objects: [CGRect(x: 85, y: 104, width: 391, height: 744)]),
        Photo(name: "burger.jpg", width: 480, height: 325, objects: [CGRect(x: 18, y: 27, width: 364, height: 284)]),
        Photo(
            name: "sparrow.png", width: 1280, height: 851, objects: [CGRect(x: 470, y: 211, width: 464, height: 397)]),
        Photo(name: "hot_dog.jpg", width: 512, height: 384, objects: [CGRect(x: 127, y: 88, width: 359, height: 141)]),
        Photo(name: "pets.jpg", width: 512, height: 430, objects: [CGRect(x: 121, y: 49, width: 130, height: 246)]),
    ]

    /// Photos that become the dim, blurred background of ``TrackingScenario/crossing``.
    static let quietBackgrounds = ["table.jpg", "roses.jpeg", "daisy.jpeg", "tulips.jpeg", "dandelion.jpg"]

    /// Photos the camera pans over, under the moving patches, in ``TrackingScenario/mixed``.
    static let busyBackgrounds = ["kite_and_cold.jpg", "table.jpg", "img_meal_one.jpg", "flower1.jpg"]
}
