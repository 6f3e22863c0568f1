def show_invoice(store, caller, invoice_id):
    invoice = store.get(invoice_id)
    return invoice.render()
