package ports

// OrderReceiptRepository records storefront order deliveries; the order
// intake issue defines its methods.
type OrderReceiptRepository interface{}
