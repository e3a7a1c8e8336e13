print("mlkit")
